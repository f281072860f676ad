"""The profile task's answer options: a vocabulary fixed independently of the data under test
(dataset/profile_vocabulary.json, or `-T vocabulary=FILE`), never drawn from the conversations
being run (why: docs/profile.md, 'Options'). A participant's label is placed in it for scoring
(`FieldVocabulary.place`); a label that cannot be placed is counted and warned of, never offered."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, create_model
from pydantic import field_validator as validates

from ..._util.text_match import FUZZY_THRESHOLD, close, normalise
from ...data import _jsonfile as jsonfile
from ...data._load import LoadedConversation
from ...data._problems import DataProblem, shorten
from ...data._schema import NO_DIAGNOSIS
from ...data._validate import Check
from ._fields import VOCABULARY_FIELDS, ProfileField, split_profile

MAX_LABEL = 100


def _label(text: str) -> str:
    # Labels reach the prompt and the response schema as they are: nothing in one may need
    # neutralising (a tag's angle brackets) or be invisible.
    if not (
        len(text) <= MAX_LABEL
        and text[:1].isalnum()
        and text.isprintable()
        and text == text.strip()
        and not {"<", ">"} & set(text)
    ):
        raise ValueError(
            f"a label of 1-{MAX_LABEL} printable characters that begins with a letter or digit, "
            "without < or >"
        )
    if text == NO_DIAGNOSIS:
        raise ValueError(f"a label other than {NO_DIAGNOSIS!r} (the format's empty set)")
    return text


Label = Annotated[str, AfterValidator(_label)]


def _repeated(texts: Sequence[str]) -> list[str]:
    counts = Counter(map(normalise, texts))
    return [t for t in texts if counts[normalise(t)] > 1]


class FieldVocabulary(BaseModel):
    """One field's options (offered in order; ordinal: lowest first) and its aliases (-> option)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    options: list[Label] = Field(min_length=2)
    aliases: dict[Label, Label] = Field(default_factory=dict)

    @validates("options")
    @classmethod
    def _distinct(cls, options: list[str]) -> list[str]:
        repeated = _repeated(options)
        if repeated:
            raise ValueError(
                "options that differ beyond case, commas and spacing (repeated: "
                f"{', '.join(map(shorten, repeated))})"
            )
        return options

    @validates("aliases")
    @classmethod
    def _of_options(cls, aliases: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        options = info.data.get("options")
        if options is None:  # invalid, and reported on their own: nothing to check against
            return aliases
        unknown = [o for o in aliases.values() if o not in options]
        if unknown:
            listed = ", ".join(map(shorten, unknown))
            raise ValueError(f"aliases of options (not options: {listed})")
        taken = _repeated([*options, *aliases])
        if taken:
            raise ValueError(
                "aliases that read as no option or other alias (taken: "
                f"{', '.join(map(shorten, taken))})"
            )
        return aliases

    @cached_property
    def readings(self) -> dict[str, str]:
        """Every option and alias, normalised -> the option it stands for."""
        pairs = [*((o, o) for o in self.options), *self.aliases.items()]
        return {normalise(text): option for text, option in pairs}

    def listed(self, label: str) -> str | None:
        """The option `label` is, or is an alias of (ignoring case, commas and spacing)."""
        return self.readings.get(normalise(label))

    def place(self, label: str) -> str | None:
        """The option a participant's label is scored as: the one it is or is an alias of, else
        the one option whose label or aliases it matches fuzzily; None where it matches none, or
        more than one (ambiguous)."""
        listed = self.listed(label)
        if listed is not None:
            return listed
        key = normalise(label)
        near = {option for text, option in self.readings.items() if close(key, text)}
        return near.pop() if len(near) == 1 else None


_FIELDS: dict[str, Any] = {f.name: (FieldVocabulary, ...) for f in VOCABULARY_FIELDS}
_VocabularyFile = create_model(
    "ProfileVocabularyFile", __config__=ConfigDict(extra="ignore", frozen=True), **_FIELDS
)


def _fields(model: BaseModel) -> dict[str, FieldVocabulary]:
    return {f.name: getattr(model, f.name) for f in VOCABULARY_FIELDS}


def labels(spec: ProfileField, value: object) -> list[tuple[int | None, str]]:
    """A participant's labels of a vocabulary field, each with its index in a multi-select
    field's list (None for a single value); "None of the above" is the empty set, no label."""
    if isinstance(value, list):
        return [(i, e) for i, e in enumerate(value) if e != NO_DIAGNOSIS]
    return [(None, value)] if isinstance(value, str) else []


@dataclass(frozen=True)
class Placed:
    """A participant's profile in the vocabulary's terms."""

    values: dict[str, object]
    """Every field's value; a vocabulary field's as its option (a multi-select field's as a list
    of options), None where the participant gave none or a label could not be placed."""
    unplaced: dict[str, list[str]] = field(default_factory=dict)
    """field -> the labels the vocabulary could not place (those fields are not scored)."""


@dataclass(frozen=True)
class Vocabulary:
    fields: Mapping[str, FieldVocabulary]
    path: str = ""
    sha256: str = ""
    """The file it was read from and the SHA-256 of its bytes (empty when built from a dump)."""
    warnings: tuple[DataProblem, ...] = ()
    """The file's oddities that do not stop it being used (keys given twice)."""

    @classmethod
    def of(cls, data: object) -> Vocabulary:
        """A vocabulary from its JSON value (raises pydantic's ValidationError)."""
        return cls(_fields(_VocabularyFile.model_validate(data)))

    def dump(self) -> dict[str, Any]:
        """The JSON value it was read from, as far as the task reads it (`of` reads it back)."""
        return {name: f.model_dump() for name, f in self.fields.items()}

    def options(self) -> dict[str, list[str]]:
        return {name: list(f.options) for name, f in self.fields.items()}

    def placed(self, truth: Mapping[str, object]) -> Placed:
        """The participant's profile (`ProfileTruth.values()`) with its labels placed."""
        values = dict(truth)
        unplaced: dict[str, list[str]] = {}
        for f in VOCABULARY_FIELDS:
            given = [label for _, label in labels(f, truth[f.name])]
            options = [self.fields[f.name].place(label) for label in given]
            missing = [label for label, o in zip(given, options, strict=True) if o is None]
            if missing:
                unplaced[f.name] = missing
            placed = [o for o in options if o is not None]
            if f.kind == "multi":
                values[f.name] = None if missing else placed
            else:
                values[f.name] = placed[0] if placed else None
        return Placed(values, unplaced)


def bundled_vocabulary_path() -> Path:
    from ..._util.bundled import bundled_dataset_dir

    return bundled_dataset_dir() / "profile_vocabulary.json"


def load_vocabulary(path: str | Path | None = None) -> Vocabulary:
    """Load and check a vocabulary file (the bundled one when `path` is None)."""
    file = Path(path) if path is not None else bundled_vocabulary_path()
    loaded = jsonfile.load_document(file, "vocabulary", _VocabularyFile)
    return Vocabulary(_fields(loaded.value), str(file), loaded.sha256, loaded.warnings)


def vocabulary_warnings(loaded: LoadedConversation, vocabulary: Vocabulary) -> list[DataProblem]:
    """A warning per profile label no option or alias names: scored as its close option, or not."""
    truth = split_profile(loaded.conversation)[1].values()
    warnings = []
    for f in VOCABULARY_FIELDS:
        for index, label in labels(f, truth[f.name]):
            options = vocabulary.fields[f.name]
            if options.listed(label) is not None:
                continue
            option = options.place(label)
            expected = (
                f"an option or alias of the profile vocabulary; scored as {shorten(option)}, the "
                f"one option it is close to (similarity >= {FUZZY_THRESHOLD})"
                if option is not None
                else "an option or alias of the profile vocabulary, or a label close to exactly "
                "one option (docs/profile.md); the field is not scored for this conversation"
            )
            warnings.append(
                DataProblem(
                    loaded.source,
                    None,
                    f.path if index is None else f"{f.path}[{index}]",
                    shorten(label),
                    expected,
                    loaded.conversation.conversationId,
                )
            )
    return warnings


def vocabulary_check(vocabulary: Vocabulary) -> Check:
    """What `attunebench validate` warns of for the profile task under `vocabulary`: the
    vocabulary's own warnings, and each profile label it cannot read as one of its options."""

    def check(conversations: Sequence[LoadedConversation]) -> list[DataProblem]:
        found = [w for c in conversations for w in vocabulary_warnings(c, vocabulary)]
        return [*vocabulary.warnings, *found]

    return check
