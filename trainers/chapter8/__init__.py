"""Chapter 8: Dyna-Q on the Dyna maze (Figure 8.2)."""
