"""Reads for the features that show games: one module per feature (the profile page reads
`profile`, which gathers `match_history`, `history_points` and `opponents`, which the API
reads too); selectors never import services."""
