"""2048: the exact 3 x 3 optimum, and TD-afterstate learning with n-tuple networks on 3 x 3 and 4 x 4."""
