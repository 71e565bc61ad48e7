import sys, time, json
from bench import env, raceday, bikes
from bench.ledger import Ledger
racers, seconds = int(sys.argv[1]), int(sys.argv[2])
def main():
    dynamo = env.Dynamo()
    try:
        with Ledger(env.client(), dynamo.lookup) as ledger:
            t=time.perf_counter()
            result = raceday.replay(dynamo, ledger, "bench-race", racers, seconds, finish=False, settings=bikes.deployed_settings())
            print("elapsed", time.perf_counter()-t)
            s = raceday.summarise(result, racers)
            b = s["bikes"]
            for k in ("post_telemetry","join_race","stream_processor"):
                print(k, json.dumps(b[k], indent=None, default=str)[:1500])
            for limit, p in b["pages"].items():
                print(limit, p["bytes"], p["gzip_bytes"], round(p["cpu_ms"]["p50"],2), round(p["wall_ms"]["p50"],2), p["rcu"], p["log_bytes"])
            print({k: v for k, v in s.items() if k not in ("bikes",)})
    finally:
        dynamo.stop()
    
if __name__=='__main__':
    main()
