"""Secrets Manager's rotation of the page-token keys: each of its four steps (alleycat.aws.page_keys.rotate)."""

from alleycat.aws import page_keys


def handler(event, context):
    page_keys.rotate(event["SecretId"], event["ClientRequestToken"], event["Step"])
