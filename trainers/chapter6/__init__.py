"""Chapter 6: temporal-difference studies (Examples 6.2, 6.5, 6.6; Figures 6.3 and 6.5)."""
