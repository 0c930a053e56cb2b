"""Statistics over tallies: win rates with honest intervals, lengths, card power."""
