"""Chapter 9: on-policy prediction with approximation on the 1000-state random walk (Figures 9.1, 9.2, 9.5, 9.10)."""
