"""The HTTP edge: the API's routes, its resolver and error mapping, the contract's shapes and caching,
and the messages pushed to viewers."""
