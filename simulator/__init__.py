"""A fleet of simulated racers riding races against the Alleycat HTTP API."""
