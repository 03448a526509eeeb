"""The rating pipeline (docs/architecture.md#from-a-replay-to-a-page): stored matches
become ratings.

- incremental: one writer at a time rates the pending matches, a batch per transaction.
- recompute: forget every rating and rebuild all of them from the stored matches.
- decay: the periodic growth of idle ratings' deviations.
- storage: what they share: loading the states a batch touches into the in-memory
  ledgers (matches.ratings.ledger) and writing them back with bulk statements;
  ledger_rows: the table rows a ledger's matchups and snapshots become.
- recompute_storage: the recompute's reads and writes of whole columns, between the
  database and the compiled ledger (matches.ratings.array_ledger); integer_keys: the
  compiled key numbering and sorting it uses.
"""
