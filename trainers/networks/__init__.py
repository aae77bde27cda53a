"""Networks in place of tables: blackjack and tic-tac-toe generalization."""
