"""The single-table store, declared from ``alleycat.storage.schema``."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from alleycat.storage import schema


def _string(name: str) -> dynamodb.Attribute:
    return dynamodb.Attribute(name=name, type=dynamodb.AttributeType.STRING)


class AlleycatTable(Construct):
    """PK/SK table, the inverted GSI (SK, PK) with its INCLUDE projection, and a stream.

    ``throwaway`` stacks get a table that is destroyed with the stack; otherwise the
    table is retained and protected against deletion.
    """

    def __init__(self, scope: Construct, id: str, *, throwaway: bool = False) -> None:
        super().__init__(scope, id)
        self.table = dynamodb.Table(
            self, "Table",
            partition_key=_string(schema.PARTITION_KEY),
            sort_key=_string(schema.SORT_KEY),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            stream=dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True),
            deletion_protection=not throwaway,
            removal_policy=RemovalPolicy.DESTROY if throwaway else RemovalPolicy.RETAIN,
        )
        self.table.add_global_secondary_index(
            index_name=schema.INVERTED_INDEX,
            partition_key=_string(schema.SORT_KEY),
            sort_key=_string(schema.PARTITION_KEY),
            projection_type=dynamodb.ProjectionType.INCLUDE,
            non_key_attributes=list(schema.INVERTED_PROJECTION),
        )
