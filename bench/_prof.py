import time, cProfile, pstats, os, uuid, sys
from bench import env, coldstart
from bench.ledger import Ledger
def main():
    dynamo = env.Dynamo()
    try:
        coldstart.seed_event_fixtures(dynamo, "bench-prof")
        os.environ["POWERTOOLS_METRICS_DISABLED"]="false"
        ev = lambda s: {**env.event("post_telemetry", body={"samples":[{"racerId":"racer-1","second":s,"cadence":80.5,"resistance":50}]}, claims={"sub":"racer-1"})}
        for s in range(1,20): env.invoke("post_telemetry", ev(s))
        def run(lo, hi):
            c=time.process_time()
            for s in range(lo,hi): env.invoke("post_telemetry", ev(s))
            return (time.process_time()-c)*1000/(hi-lo)
        print("no ledger cpu ms/request", run(20, 120))
        with Ledger(env.client(), dynamo.lookup):
            print("ledger cpu ms/request", run(120, 220))
        pr=cProfile.Profile(); pr.enable(); run(220,299); pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(30)
    finally:
        dynamo.stop()
if __name__=="__main__": main()
