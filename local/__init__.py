"""The local stack: embedded DynamoDB, the API's handlers behind an API Gateway-shaped server."""
