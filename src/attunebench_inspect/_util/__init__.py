"""What every layer of the package uses and nothing of AttuneBench (ARCHITECTURE.md, '_util/')."""
