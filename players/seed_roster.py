"""The 27 characters a new database starts with: (id, code, name), id = position from 0.

The roster is data: the Character table, managed in the admin and read through
`players.selectors.roster` (docs/roster.md). This list only seeds it (migration 0002,
`players.services.ensure_roster` for tests that flush the table) and gives the
simulator and the offline benches the league they start from. Nothing that validates,
rates or shows a game reads it: a character added here and nowhere else exists nowhere.
"""

SEED_ROSTER: tuple[tuple[int, str, str], ...] = (
    (0, "SO", "Sol"),
    (1, "KY", "Ky"),
    (2, "MA", "May"),
    (3, "AX", "Axl"),
    (4, "CH", "Chipp"),
    (5, "PO", "Potemkin"),
    (6, "FA", "Faust"),
    (7, "MI", "Millia"),
    (8, "ZA", "Zato-1"),
    (9, "RA", "Ramlethal"),
    (10, "LE", "Leo"),
    (11, "NA", "Nagoriyuki"),
    (12, "GI", "Giovanna"),
    (13, "AN", "Anji"),
    (14, "IN", "I-No"),
    (15, "GO", "Goldlewis"),
    (16, "JC", "Jack-O'"),
    (17, "HA", "Happy Chaos"),
    (18, "BA", "Baiken"),
    (19, "TE", "Testament"),
    (20, "BI", "Bridget"),
    (21, "SI", "Sin"),
    (22, "BE", "Bedman?"),
    (23, "AS", "Asuka"),
    (24, "JN", "Johnny"),
    (25, "EL", "Elphelt"),
    (26, "AB", "A.B.A."),
)

SEED_CODES: tuple[str, ...] = tuple(code for _, code, _ in SEED_ROSTER)
SEED_IDS: dict[str, int] = {code: cid for cid, code, _ in SEED_ROSTER}
