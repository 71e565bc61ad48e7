"""``python -m simulator --base-url URL --racers N --speed X --races K``."""

from __future__ import annotations

import argparse
import sys

from .client import ApiClient, ApiError
from .race import Settings, Simulator


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m simulator", description=__doc__)
    parser.add_argument("--base-url", default="http://127.0.0.1:3000", help="the API's base URL")
    parser.add_argument("--token", help="an admin bearer token (default: ask the local stack's /local/token)")
    parser.add_argument("--racers", type=int, default=100)
    parser.add_argument("--speed", type=float, default=1.0, help="race seconds per wall-clock second (above 1, each race starts duration × (1 − 1/speed) "
                             "before the first tick, so every second posted has happened)")
    parser.add_argument("--races", type=int, default=None, help="stop after this many (default: until Ctrl-C)")
    parser.add_argument("--duration", type=int, default=300, help="durationSeconds of each race (60-3600)")
    parser.add_argument("--announce", type=int, default=0,
                        help="at speed 1: seconds each race is up next (upcoming, its racers joined) before its start, "
                             "so people can join it; the next is made that long before the race ridden ends, to start "
                             "as it ends (make demo: 120)")
    parser.add_argument("--class-id", default="demo-class")
    parser.add_argument("--metric", choices=("output", "power"), default="output",
                        help="the class's metric: power ranks the racers' watts (a class's metric is fixed once it has races)")
    parser.add_argument("--racer-prefix", default="rider", help="racer ids are <prefix>-0001, ...")
    parser.add_argument("--bikes", action="store_true",
                        help="every racer posts its own sample each second with its own token, as bikes do "
                             "(tokens from the local stack's /local/token)")
    parser.add_argument("--http", action="store_true",
                        help="post over HTTP even where /config.json names an MQTT broker (ingest): by default each racer "
                             "then publishes its own sample over MQTT with its own token (contract v1.3)")
    parser.add_argument("--watch", action="store_true",
                        help="poll the race leaderboard and report how far it lags accepted telemetry")
    parser.add_argument("--push-viewers", type=int, default=0,
                        help="viewers subscribed to the race's board over the site's Event API (/config.json); "
                             "reports how long accepted telemetry takes to show on their boards")
    parser.add_argument("--pollers", type=int, default=0,
                        help="viewers polling the race leaderboard every second, measured the same way")
    args = parser.parse_args(argv)
    if args.racers < 1 or args.speed <= 0 or not 60 <= args.duration <= 3600 or args.announce < 0:
        parser.error("need --racers >= 1, --speed > 0, --duration in 60..3600 and --announce >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    client = ApiClient(args.base_url, args.token)
    if not client.token:
        try:
            client.token = client.local_admin_token()
        except (ApiError, OSError) as error:
            sys.stderr.write(f"no --token, and {args.base_url}/local/token gave none ({error})\n")
            return 2
    settings = Settings(racers=args.racers, speed=args.speed, races=args.races,
                        duration=args.duration, class_id=args.class_id, metric=args.metric, racer_prefix=args.racer_prefix,
                        bikes=args.bikes, watch=args.watch, push_viewers=args.push_viewers, pollers=args.pollers,
                        announce=args.announce, transport="http" if args.http else "auto")
    simulator = Simulator(client, settings)
    try:
        simulator.run()
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
    sys.stderr.write(simulator.totals.summary() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
