"""Where the evaluation, its tools and its instruments become one suite: the registration points
an instrument joins beyond Inspect's registry (`_registry.py`): the report's sections
(`render.sections`), the estimate's priced tasks and the `attunebench` command's subcommands
(`cli.commands`). Nothing below imports this package."""
