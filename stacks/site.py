"""One CloudFront distribution for the browser: the frontend from a private S3 bucket (origin
access control) and the API paths from the HTTP API, so the site and its API share one origin.

Every answer carries the security headers ``stacks/headers.py`` defines (the local server sends the
same). The frontend is deployed in two steps: first its content-named assets (``assets/app-<hash>.js``,
kept a year by browsers and the edge, never overwritten, left in place by later deploys), then the
page and ``/config.json`` that name them (revalidated on every load, invalidated at the edge), so a
page is never served before the files it names.

The API behaviours cache what the handlers' Cache-Control allows (``alleycat.edge.caching``): the
cache policy's TTLs are 0 unless the origin says otherwise, its key is the path, the route
table's query parameters and the Authorization header (so a token's answer can only ever be
served to that token, and the header reaches the origin). Writes are never cached: CloudFront
caches only GET and HEAD, and every write answers ``no-store``. docs/edge.md has the reasons.
"""

from __future__ import annotations

import re

from aws_cdk import Aws, CfnMapping, CfnResource, Duration, Names, RemovalPolicy, Stack
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from alleycat.edge.routes import ROUTES, Route

from . import ROOT, acknowledge, headers, settings

DIST_DIR = ROOT / "frontend" / "dist"
LOG_RETENTION = Duration.days(90)
DEPLOYMENT_HANDLER_PREFIX = "Custom::CDKBucketDeployment"
AUTO_DELETE_PROVIDER = "Custom::S3AutoDeleteObjectsCustomResourceProvider"  # CDK's, one per stack
CONFIG_FILE = "config.json"  # the frontend's runtime settings (local/server.py serves the same shape)
ENTRY_FILES = ("index.html", CONFIG_FILE)  # what names the assets: deployed last, revalidated, invalidated
# The page is asked for as / (the default root object) as well as /index.html: each its own cache entry.
INVALIDATED = ("/", *(f"/{name}" for name in ENTRY_FILES))
HANDLER_LOG_RETENTION = logs.RetentionDays.ONE_MONTH  # CDK's deployment and clean-up handlers
# The longest any answer may stay at the edge, whatever its Cache-Control (alleycat.edge.caching.FROZEN).
API_MAX_TTL = Duration.days(1)
# Statuses CloudFront would otherwise cache for 10 s whatever the origin says: cached only as
# long as their Cache-Control allows (a read's 4xx: 1 s; anything else: not at all).
UNCACHED_ERRORS = (400, 403, 404, 405, 414, 500, 501, 502, 503, 504)
# CloudFront's policies and origin access controls are global: one namespace per account, whatever
# the Region. Their names end in the stack's Region (and start with the stack's unique name), so the
# stack deploys to a second Region of the same account. Names are at most 128 characters (an origin
# access control's 64); a Region code is at most 16 here (the longest today, ap-southeast-5, is 14).
LONGEST_REGION = 16
POLICY_NAME_LENGTH = 128
FUNCTION_NAME_LENGTH = 64
# A viewer-request CloudFront Function (JavaScript runtime 2.0) on the behaviours whose path has a public read
# and a write: reads go on without Authorization, so it is no part of their cache key.
PUBLIC_READS_JS = """function handler(event) {
  var request = event.request;
  if (request.method === 'GET' || request.method === 'HEAD') {
    delete request.headers.authorization;
  }
  return request;
}
"""
ACCESS_CONTROL_NAME_LENGTH = 64


def path_pattern(route: Route) -> str:
    """The route's path as a CloudFront path pattern: each ``{parameter}`` a ``*``."""
    return re.sub(r"\{[^}]+\}", "*", route.path)


def api_behaviors(routes: tuple[Route, ...] = ROUTES) -> list[tuple[str, tuple[Route, ...]]]:
    """A behaviour a route path (the routes of its methods), most specific first: CloudFront takes the first
    pattern that matches, and a ``*`` matches slashes too (``/races/*`` would take ``/races/x/leaderboard``)."""
    by_pattern: dict[str, list[Route]] = {}
    for route in routes:
        by_pattern.setdefault(path_pattern(route), []).append(route)
    literal = lambda pattern: sum(1 for part in pattern.split("/") if part and part != "*")
    return sorted(((pattern, tuple(held)) for pattern, held in by_pattern.items()),
                  key=lambda item: (-literal(item[0]), -len(item[0]), item[0]))


def api_query_parameters(routes: tuple[Route, ...] = ROUTES) -> list[str]:
    return sorted({name for route in routes for name in route.query})


def public_reads(routes: tuple[Route, ...]) -> bool:
    """Whether a behaviour's reads are all public: then Authorization is no part of their cache key."""
    return all(not route.protected for route in routes if route.method == "GET")


def api_request_headers(routes: tuple[Route, ...] = ROUTES) -> list[str]:
    """Request headers the writes need at the origin besides Authorization (which rides in the cache
    key): their body's type, and the headers the routes read."""
    return ["Content-Type", *sorted({name for route in routes for name in route.headers})]


def private_bucket(scope: Construct, id: str, removal_policy: RemovalPolicy, **kwargs) -> s3.Bucket:
    """No public access, TLS only, encrypted at rest. A bucket destroyed with its stack (a throwaway
    stack's) is emptied first by CDK's auto-delete custom resource: CloudFormation cannot delete a
    bucket that holds objects. For the same reason a kept bucket is kept even when the stack's first
    deploy fails (``Retain``, not ``RetainExceptOnCreate``): that rollback could not delete it once a
    file or a log is in it. CloudFormation names it, so a leftover never blocks the next create."""
    destroyed = removal_policy == RemovalPolicy.DESTROY
    return s3.Bucket(scope, id,
                     block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
                     enforce_ssl=True,
                     encryption=s3.BucketEncryption.S3_MANAGED,
                     removal_policy=RemovalPolicy.DESTROY if destroyed else RemovalPolicy.RETAIN,
                     auto_delete_objects=destroyed,
                     **kwargs)


def name_in_region(scope: Construct, purpose: str, max_length: int) -> str:
    """``<the stack's unique name for scope>-<purpose>-<the stack's Region>``, at most ``max_length``
    characters in any Region: unique per stack and per Region in the account's global namespace."""
    room = max_length - len(purpose) - 2 - LONGEST_REGION
    return f"{Names.unique_resource_name(scope, max_length=room, separator='-')}-{purpose}-{Stack.of(scope).region}"


def origin_shield(scope: Construct) -> dict:
    """The API origin's Origin Shield settings: one regional cache in front of the API, so a 1-second
    answer is fetched about once a second in all, not once per regional edge cache (docs/edge.md).
    Its Region is ``-c originShieldRegion=<Region>`` (``off``: none), else the one AWS documents for
    the stack's Region (``stacks.settings``), looked up by CloudFormation in the deploy's Region: in a
    Region without one the deploy fails before anything is created (no such key in the mapping)."""
    chosen = scope.node.try_get_context(settings.ORIGIN_SHIELD_CONTEXT)
    if chosen == settings.ORIGIN_SHIELD_OFF:
        return {"origin_shield_enabled": False}
    if chosen:
        if chosen not in settings.ORIGIN_SHIELD_REGIONS:
            raise ValueError(f"-c {settings.ORIGIN_SHIELD_CONTEXT}={chosen}: CloudFront offers Origin Shield in "
                             f"{', '.join(settings.ORIGIN_SHIELD_REGIONS)} only (or say {settings.ORIGIN_SHIELD_OFF})")
        return {"origin_shield_enabled": True, "origin_shield_region": chosen}
    regions = CfnMapping(scope, "OriginShieldRegions", mapping={
        region: {"Region": settings.origin_shield_region(region)}
        for region in (*settings.ORIGIN_SHIELD_REGIONS, *settings.ORIGIN_SHIELD_FOR_OTHER_REGIONS)})
    return {"origin_shield_enabled": True, "origin_shield_region": regions.find_in_map(Aws.REGION, "Region")}


class Site(Construct):
    def __init__(self, scope: Construct, id: str, *, api_domain: str, routes: tuple[Route, ...] = ROUTES,
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN, config: dict | None = None,
                 connect: tuple[str, ...] = ()) -> None:
        """``config`` is deployed as ``/config.json`` (what the frontend needs besides its own origin);
        ``connect`` adds origins the page may connect to (CSP ``connect-src``)."""
        super().__init__(scope, id)
        self._connect = connect
        self._removal_policy = removal_policy
        self.logs = private_bucket(
            self, "AccessLogs", removal_policy,
            # CloudFront standard logging writes with ACLs, which need object-writer ACLs enabled.
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            lifecycle_rules=[s3.LifecycleRule(expiration=LOG_RETENTION)])
        self.bucket = private_bucket(self, "Bucket", removal_policy,
                                     server_access_logs_bucket=self.logs,
                                     server_access_logs_prefix="s3/")
        self.headers = self._security_headers()
        self.distribution = cloudfront.Distribution(
            self, "Distribution",
            comment="Alleycat: the frontend and its API",
            default_root_object="index.html",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(
                    self.bucket, origin_access_control=cloudfront.S3OriginAccessControl(
                        self, "BucketAccess", description="Alleycat site: CloudFront reads the private bucket",
                        origin_access_control_name=name_in_region(self, "bucket", ACCESS_CONTROL_NAME_LENGTH))),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=self.headers,
            ),
            additional_behaviors=self._api_behaviors(api_domain, routes),
            error_responses=[cloudfront.ErrorResponse(http_status=status, ttl=Duration.seconds(0))
                             for status in UNCACHED_ERRORS],
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            enable_logging=True,
            log_bucket=self.logs,
            log_file_prefix="cloudfront/",
        )
        self._deploy(config or {"events": None})
        self._acknowledge()
        self._acknowledge_deployment_handler()
        self._log_auto_delete_handler()
        self._empty_the_log_bucket_last()

    def _deploy(self, config: dict) -> None:
        """The assets, then the page and config.json that name them.

        The assets are never pruned: while the new page is being deployed and invalidated, the
        edge may still serve the previous one (up to the default behaviour's minimum TTL of a second,
        and until the invalidation completes), and it names the previous assets. A few hundred KB a
        deploy; a throwaway stack's bucket is emptied with it (docs/edge.md: pruning by hand)."""
        self.handler_logs = logs.LogGroup(self, "DeploymentLogs", retention=HANDLER_LOG_RETENTION,
                                          removal_policy=self._removal_policy)
        self.assets = s3deploy.BucketDeployment(
            self, "Assets",
            destination_bucket=self.bucket,
            sources=[s3deploy.Source.asset(str(DIST_DIR / headers.ASSETS))],
            destination_key_prefix=f"{headers.ASSETS}/",
            cache_control=[s3deploy.CacheControl.from_string(headers.IMMUTABLE)],
            prune=False,
            log_group=self.handler_logs,
        )
        self.deployment = s3deploy.BucketDeployment(
            self, "Deployment",
            destination_bucket=self.bucket,
            sources=[s3deploy.Source.asset(str(DIST_DIR), exclude=[headers.ASSETS]),
                     s3deploy.Source.json_data(CONFIG_FILE, config)],
            cache_control=[s3deploy.CacheControl.from_string(headers.REVALIDATE)],
            # Pruned (files the frontend no longer has, the unhashed app.js of earlier deploys), but
            # never the assets: the sync of this deployment leaves assets/ alone.
            prune=True,
            exclude=[f"{headers.ASSETS}/*"],
            distribution=self.distribution,
            distribution_paths=list(INVALIDATED),
            log_group=self.handler_logs,
        )
        self.deployment.node.add_dependency(self.assets)

    def _api_behaviors(self, api_domain: str, routes: tuple[Route, ...]) -> dict[str, cloudfront.BehaviorOptions]:
        """A behaviour a route path, keyed on what changes its answer: the path and the query parameters its routes
        read, and Authorization only where a route needs it (CloudFront forwards it only in the cache key). A public
        read's key never holds it, so a made-up header cannot make a public answer miss the cache; where a path's
        public read shares it with a write (``/classes/*/races``), a viewer-request function drops the header from
        GET and HEAD before the key is made."""
        origin = origins.HttpOrigin(
            api_domain, protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2], **origin_shield(self))
        self.api_request = cloudfront.OriginRequestPolicy(
            self, "ApiRequest", comment="Alleycat API writes: body type and idempotency key",
            origin_request_policy_name=name_in_region(self, "api-request", POLICY_NAME_LENGTH),
            header_behavior=cloudfront.OriginRequestHeaderBehavior.allow_list(*api_request_headers(routes)),
            query_string_behavior=cloudfront.OriginRequestQueryStringBehavior.none(),
            cookie_behavior=cloudfront.OriginRequestCookieBehavior.none())
        self.api_caches: dict[tuple[bool, tuple[str, ...]], cloudfront.CachePolicy] = {}
        self.public_reads_function: cloudfront.Function | None = None
        behaviors = {}
        # a behaviour with no public read keys on every query parameter a protected route reads (only GET /reviews
        # is cached, per token): one policy for them all, as a policy's name takes one of the account's 20
        protected = tuple(api_query_parameters(tuple(route for route in routes if route.protected)))
        for pattern, held in api_behaviors(routes):
            authorized = any(route.protected for route in held)
            mixed = authorized and public_reads(held) and any(route.method == "GET" for route in held)
            query = tuple(api_query_parameters(held)) if mixed or not authorized else protected
            behaviors[pattern] = cloudfront.BehaviorOptions(
                origin=origin,
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,  # a redirected POST loses its body
                allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                cached_methods=cloudfront.CachedMethods.CACHE_GET_HEAD,
                cache_policy=self._api_cache(authorized, query),
                origin_request_policy=self.api_request,
                response_headers_policy=self.headers,
                function_associations=[cloudfront.FunctionAssociation(
                    function=self._public_reads_function(), event_type=cloudfront.FunctionEventType.VIEWER_REQUEST)]
                if mixed else None,
                compress=True)
        return behaviors

    def _api_cache(self, authorized: bool, query: tuple[str, ...]) -> cloudfront.CachePolicy:
        """The cache policy keyed on ``query`` (and Authorization when ``authorized``), one for each such key."""
        if (authorized, query) not in self.api_caches:
            kind = "private" if authorized else "public"
            self.api_caches[authorized, query] = cloudfront.CachePolicy(
                self, f"ApiCache{kind.title()}{''.join(name[0].upper() + name[1:] for name in query)}",
                comment=f"Alleycat API, {kind}: as long as the answer's Cache-Control allows",
                cache_policy_name=name_in_region(self, f"api-{kind}-{'-'.join(query) or 'path'}", POLICY_NAME_LENGTH),
                min_ttl=Duration.seconds(0), default_ttl=Duration.seconds(0), max_ttl=API_MAX_TTL,
                query_string_behavior=cloudfront.CacheQueryStringBehavior.allow_list(*query)
                if query else cloudfront.CacheQueryStringBehavior.none(),
                header_behavior=cloudfront.CacheHeaderBehavior.allow_list("Authorization")
                if authorized else cloudfront.CacheHeaderBehavior.none(),
                cookie_behavior=cloudfront.CacheCookieBehavior.none(),
                enable_accept_encoding_gzip=True, enable_accept_encoding_brotli=True)
        return self.api_caches[authorized, query]

    def _public_reads_function(self) -> cloudfront.Function:
        if self.public_reads_function is None:
            self.public_reads_function = cloudfront.Function(
                self, "PublicReads", comment="Alleycat API: a public read's answer is keyed without Authorization",
                function_name=name_in_region(self, "public-reads", FUNCTION_NAME_LENGTH),
                code=cloudfront.FunctionCode.from_inline(PUBLIC_READS_JS), runtime=cloudfront.FunctionRuntime.JS_2_0)
        return self.public_reads_function

    def _security_headers(self) -> cloudfront.ResponseHeadersPolicy:
        """HSTS, CSP, nosniff, no framing, no referrer (``stacks/headers.py``, which the local server
        sends too): the browser holds Cognito tokens. Each overrides whatever the origin says."""
        return cloudfront.ResponseHeadersPolicy(
            self, "SecurityHeaders",
            comment="Alleycat site: HSTS, CSP, nosniff, no framing, no referrer",
            response_headers_policy_name=name_in_region(self, "security-headers", POLICY_NAME_LENGTH),
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=Duration.seconds(headers.HSTS_MAX_AGE_SECONDS),
                    include_subdomains=headers.HSTS_INCLUDE_SUBDOMAINS, override=True),
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=headers.content_security_policy(self._connect), override=True),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption[headers.FRAME_OPTION], override=True),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy[headers.REFERRER_POLICY.upper().replace("-", "_")],
                    override=True),
            ))

    def _empty_the_log_bucket_last(self) -> None:
        """A throwaway stack empties its log bucket after the distribution and the site bucket, which
        write to it, are deleted: fewer log files can land in it between its emptying and its deletion
        (CDK's handler also denies new objects meanwhile)."""
        emptying = self.logs.node.try_find_child("AutoDeleteObjectsCustomResource")
        if emptying is not None:
            emptying.node.add_dependency(self.distribution, self.bucket)

    @property
    def url(self) -> str:
        return f"https://{self.distribution.distribution_domain_name}/"

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

    def _log_auto_delete_handler(self) -> None:
        """CDK's auto-delete handler (a throwaway stack's: it empties the buckets before CloudFormation
        deletes them) logs into a log group of the stack, destroyed after it, rather than one Lambda
        would make at the stack's deletion and leave behind."""
        provider = Stack.of(self).node.try_find_child(AUTO_DELETE_PROVIDER)
        if provider is None:  # no bucket is destroyed with the stack
            return
        group = logs.LogGroup(self, "AutoDeleteLogs", retention=HANDLER_LOG_RETENTION,
                              removal_policy=RemovalPolicy.DESTROY)
        handler = provider.node.find_child("Handler")
        assert isinstance(handler, CfnResource) and handler.cfn_resource_type == "AWS::Lambda::Function"
        handler.add_property_override("LoggingConfig", {"LogGroup": group.log_group_name})
