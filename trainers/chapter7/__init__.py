"""Chapter 7: n-step TD on the 19-state random walk (Figure 7.2)."""
