"""Replay sources (docs/architecture.md#from-a-replay-to-a-page, step 1): one module per kind
of ReplaySource.

Each kind reads its settings into a typed dataclass and pulls with the same contract:
``pull(source, settings, run, result) -> error`` stores what it fetched through
``matches.services.ingest`` and saves the cursor in the same transaction as the
replays it covers (``base.store_page``), counts into ``result`` and returns why it
stopped early, or "" when it drained the source or reached its per-run cap.
"""
