"""The game's character roster as plain data: (id, code, name), id = position from 0.

The database copy is created by a data migration; a new character is one row there
and one line here (the line keeps the replay validator and simulator in step).
"""

ROSTER: tuple[tuple[int, str, str], ...] = (
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

CODE_TO_ID: dict[str, int] = {code: cid for cid, code, _ in ROSTER}
ID_TO_CODE: dict[int, str] = {cid: code for cid, code, _ in ROSTER}
