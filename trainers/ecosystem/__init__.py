"""Stable-Baselines3 against rltorch on tic-tac-toe, judged by one exact evaluation."""
