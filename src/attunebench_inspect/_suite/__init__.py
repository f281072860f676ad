"""Where the evaluation, its tools and its instruments become one suite: the registration points
an instrument joins beyond Inspect's registry (`_registry.py`): the report's sections
(`report.SECTIONS`), the estimate's priced tasks (`estimate.PRICED`) and the `attunebench`
command's subcommands (`cli.COMMANDS`). Nothing below imports this package."""
