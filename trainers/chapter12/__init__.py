"""Chapter 12: eligibility traces, for prediction on the 19-state walk and for control on Mountain Car."""
