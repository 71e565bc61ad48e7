"""Adapters for the AWS services besides DynamoDB: EventBridge Scheduler, Lambda Invoke, AppSync Events."""
