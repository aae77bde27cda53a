"""Chapter 10: on-policy control with approximation on Mountain Car (Figures 10.1-10.4)."""
