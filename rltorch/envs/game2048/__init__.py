"""2048: its rules on packed boards, the Gymnasium env, terminal play, the exact small-board solver."""
