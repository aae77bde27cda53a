"""Thorp's single-deck basic strategy reproduced with Monte Carlo ES (batched, and over torch.distributed ranks)."""
