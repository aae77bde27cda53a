"""Chapter 5: Monte Carlo methods on blackjack (Figures 5.1-5.3 and every chapter-5 trainer)."""
