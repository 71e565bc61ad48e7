"""The table's definition, read by the CDK stack and by the local stack alike, and what of its
stream the stream processor acts on."""

PARTITION_KEY = "PK"
SORT_KEY = "SK"

# Inverted index: partition key = the table's sort key. Answers "races by class"
# (Race items under CLASS#); it also lists a race's racers (Entry items under RACE#)
# and a class's bests, one per racer (Best items under BEST#), which no route reads yet.
INVERTED_INDEX = "inverted"

# Only attributes that change rarely are projected, so live updates of scores,
# standings and samples never write to the index.
INVERTED_PROJECTION = (
    "type", "racerId", "classId", "raceId", "name", "className",
    "startsAt", "durationSeconds", "status", "racerCount", "bestScore",
)

# Item types whose changes the stream processor acts on: the stack's event source (and the local
# stream poller) filters out every other record, and the processor reads only these.
STREAM_PROCESSOR_TYPES = ("Chunk", "Race", "Class", "Racer", "Review")
# The history writer's (docs/fan-in.md): a second mapping of the same stream, filtered to the fan-in's blocks.
HISTORY_WRITER_TYPES = ("SecondBlock",)


def create_table_request(table_name: str) -> dict:
    """Arguments of DynamoDB CreateTable for this table (used by the local stack and tests)."""
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": PARTITION_KEY, "AttributeType": "S"},
            {"AttributeName": SORT_KEY, "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
            {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
        ],
        "GlobalSecondaryIndexes": [{
            "IndexName": INVERTED_INDEX,
            "KeySchema": [
                {"AttributeName": SORT_KEY, "KeyType": "HASH"},
                {"AttributeName": PARTITION_KEY, "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(INVERTED_PROJECTION)},
        }],
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    }
