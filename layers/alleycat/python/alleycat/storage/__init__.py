"""The table: its keys and items, one module per partition, and the one DynamoDB gateway (``dynamo``)."""
