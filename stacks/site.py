"""The frontend: a private S3 bucket behind CloudFront (origin access control), with the
built ``frontend/dist`` and a ``config.json`` naming the API deployed into it.

``Site`` makes the bucket and distribution first, so the API can restrict CORS to the
site's origin; ``publish(api_url, api_origin)`` then adds the deployment, which depends on
the API, and names the API's origin in the CSP of the distribution's security headers.
That origin is made of the RestApi's id alone: the distribution never depends on the
API's stage, methods or gateway responses (which name the site's origin), so there is no cycle.
"""

from __future__ import annotations

import jsii
from aws_cdk import Duration, IStableStringProducer, Lazy, RemovalPolicy, Stack
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from . import ROOT, acknowledge

DIST_DIR = ROOT / "frontend" / "dist"
LOG_RETENTION = Duration.days(90)
DEPLOYMENT_HANDLER_PREFIX = "Custom::CDKBucketDeployment"
HSTS_MAX_AGE = Duration.days(730)


def content_security_policy(api_origin: str) -> str:
    """Only the site's own script and styles run, and it talks only to itself and the API."""
    return "; ".join([
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
        "font-src 'self'", f"connect-src 'self' {api_origin}", "manifest-src 'self'",
        "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'",
    ])


@jsii.implements(IStableStringProducer)
class _Later:
    """A value the template needs before the construct that knows it exists (the API)."""

    def __init__(self) -> None:
        self.value: str | None = None

    def produce(self) -> str | None:
        return self.value


def private_bucket(scope: Construct, id: str, removal_policy: RemovalPolicy, **kwargs) -> s3.Bucket:
    """No public access, TLS only, encrypted at rest."""
    return s3.Bucket(scope, id,
                     block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
                     enforce_ssl=True,
                     encryption=s3.BucketEncryption.S3_MANAGED,
                     removal_policy=removal_policy,
                     auto_delete_objects=False,
                     **kwargs)


class Site(Construct):
    def __init__(self, scope: Construct, id: str, *,
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, id)
        self.logs = private_bucket(
            self, "AccessLogs", removal_policy,
            # CloudFront standard logging writes with ACLs, which need object-writer ACLs enabled.
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            lifecycle_rules=[s3.LifecycleRule(expiration=LOG_RETENTION)])
        self.bucket = private_bucket(self, "Bucket", removal_policy,
                                     server_access_logs_bucket=self.logs,
                                     server_access_logs_prefix="s3/")
        self._api_origin = _Later()
        self.headers = self._security_headers()
        self.distribution = cloudfront.Distribution(
            self, "Distribution",
            comment="Alleycat frontend",
            default_root_object="index.html",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(self.bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=self.headers,
            ),
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            enable_logging=True,
            log_bucket=self.logs,
            log_file_prefix="cloudfront/",
        )
        self._acknowledge()

    def _security_headers(self) -> cloudfront.ResponseHeadersPolicy:
        """HSTS, CSP, nosniff, no framing, no referrer: the browser may hold Cognito tokens."""
        csp = content_security_policy(Lazy.string(self._api_origin))
        return cloudfront.ResponseHeadersPolicy(
            self, "SecurityHeaders",
            comment="Alleycat site: HSTS, CSP, nosniff, no framing, no referrer",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=HSTS_MAX_AGE, include_subdomains=True, override=True),
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=csp, override=True),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.NO_REFERRER, override=True),
            ))

    @property
    def origin(self) -> str:
        """The site's origin, for CORS: ``https://<distribution domain>``."""
        return f"https://{self.distribution.distribution_domain_name}"

    @property
    def url(self) -> str:
        return f"{self.origin}/"

    def publish(self, api_url: str, api_origin: str) -> s3deploy.BucketDeployment:
        """Deploys the built frontend and a ``config.json`` pointing it at ``api_url``,
        and lets the site's CSP connect to ``api_origin``."""
        self._api_origin.value = api_origin
        deployment = s3deploy.BucketDeployment(
            self, "Deployment",
            destination_bucket=self.bucket,
            sources=[s3deploy.Source.asset(str(DIST_DIR)),
                     s3deploy.Source.json_data("config.json", {"apiUrl": api_url})],
            distribution=self.distribution,
            distribution_paths=["/index.html", "/config.json", "/app.js", "/app.css"],
            prune=True,
        )
        self._acknowledge_deployment_handler()
        return deployment

    def _acknowledge(self) -> None:
        acknowledge(self.logs, "AwsSolutions-S1",
                    "This is the access-log bucket itself; logging its own access would recurse.")
        acknowledge(self.distribution, "AwsSolutions-CFR1",
                    "Racers and viewers ride from anywhere; no country is restricted by design.")
        acknowledge(self.distribution, "AwsSolutions-CFR2",
                    "No WAFv2 web ACL yet (fixed + per-request cost) for a static, read-only site "
                    "served from a private bucket; attach one with the API's before public launch.")
        acknowledge(self.distribution, "AwsSolutions-CFR4",
                    "The site uses the default *.cloudfront.net certificate, for which CloudFront "
                    "fixes the policy; set TLSv1.2_2021 when a custom domain and certificate are added.")

    def _deployment_wildcards(self) -> list[str]:
        bucket = Stack.of(self).get_logical_id(self.bucket.node.default_child)
        return [*(f"Action::s3:{action}*" for action in ("Abort", "DeleteObject", "GetBucket", "GetObject", "List")),
                "Resource::*", f"Resource::<{bucket}.Arn>/*",
                "Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*"]

    def _acknowledge_deployment_handler(self) -> None:
        """The BucketDeployment's singleton handler (a stack-level Lambda CDK manages)."""
        for child in Stack.of(self).node.children:
            if child.node.id.startswith(DEPLOYMENT_HANDLER_PREFIX):
                acknowledge(child, "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/"
                            "service-role/AWSLambdaBasicExecutionRole]",
                            "CDK's BucketDeployment handler role; the AWS managed basic execution "
                            "policy only lets it write its own CloudWatch logs.")
                for finding in self._deployment_wildcards():
                    acknowledge(child, f"AwsSolutions-IAM5[{finding}]",
                                "CDK's BucketDeployment handler copies every object of the asset "
                                "into the site bucket and prunes old ones (object and action "
                                "wildcards on those two buckets only) and invalidates the "
                                "distribution (CreateInvalidation with Resource '*').")
                acknowledge(child, "AwsSolutions-L1",
                            "CDK's BucketDeployment handler runtime is chosen and updated by aws-cdk-lib, "
                            "not by this project; it runs only during deployments.")
