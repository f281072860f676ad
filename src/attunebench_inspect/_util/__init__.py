"""What every layer of the package uses and nothing of AttuneBench: how files are read and
written (`files`), the seeded bootstrap (`bootstrap`), the fuzzy matcher of short answers
(`text_match`), invisible characters (`invisible`) and where the bundled data set is
(`bundled`)."""
