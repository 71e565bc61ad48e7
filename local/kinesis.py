"""The local telemetry log: a Kinesis-compatible engine (kinesalite, from npm) and the event source mapping
that reads it into ``functions/ingest_telemetry`` as Lambda's Kinesis mapping does.
"""

from __future__ import annotations

import base64

REGION = "us-east-1"
ACCOUNT = "000000000000"
STREAM_NAME = "alleycat-telemetry"
STREAM_ARN = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/{STREAM_NAME}"
CONSUMER_ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/alleycat-ingest-telemetry"


def lambda_record(shard_id: str, sequence: str, partition_key: str, data: bytes, arrival: float,
                  stream_arn: str = STREAM_ARN) -> dict:
    """A Kinesis record as Lambda's event source mapping delivers it (``Records[]`` of the event)."""
    return {"kinesis": {"kinesisSchemaVersion": "1.0", "partitionKey": partition_key, "sequenceNumber": sequence,
                        "data": base64.b64encode(data).decode(), "approximateArrivalTimestamp": arrival},
            "eventSource": "aws:kinesis", "eventVersion": "1.0", "eventID": f"{shard_id}:{sequence}",
            "eventName": "aws:kinesis:record", "invokeIdentityArn": CONSUMER_ROLE_ARN, "awsRegion": REGION,
            "eventSourceARN": stream_arn}
