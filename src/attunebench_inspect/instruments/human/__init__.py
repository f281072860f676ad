"""The human baseline's tools: the offline page of the protocol's questions (`export`) and the
import of answer files as ordinary runs (`imports`) through the replay model `human/<annotator>`
(`providers/replay.py`)."""
