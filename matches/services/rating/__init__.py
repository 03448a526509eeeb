"""The rating pipeline (docs/architecture.md#from-a-replay-to-a-page): stored matches
become ratings.

- incremental: one writer at a time rates the pending matches, a batch per transaction.
- recompute: forget every rating and rebuild all of them from the stored matches.
- decay: the periodic growth of idle ratings' deviations.
- storage: what they share: loading the states a batch touches into the in-memory
  ledgers (matches.ratings.ledger) and writing them back with bulk statements.
"""
