"""What a request or a schedule does, from the rules and the storage: a telemetry batch taken, a race
finished at its end, a board pushed to its viewers."""
