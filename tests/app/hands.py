"""Small legal hands the app tests play."""

KINGS = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]


def hand_out(team="A", left=("5C",)):
    """A small legal hand: ``team`` goes out with a natural canasta of kings; the other holds ``left``."""
    other = "B" if team == "A" else "A"
    return {"went_out": team, "teams": {team: {"melds": [KINGS], "hands": [[], []]},
                                        other: {"melds": [], "hands": [list(left), []]}}}
