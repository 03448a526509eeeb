"""Reads for the features that show games: one module per feature (selectors never import
services)."""
