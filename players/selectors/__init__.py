"""Reads about players and their ratings (nothing here writes or imports `matches`)."""
