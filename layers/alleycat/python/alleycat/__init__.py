"""Alleycat shared layer: keys, entities, page tokens, errors and the table gateway."""
