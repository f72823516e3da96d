"""Real-world adaptation: Alg. 1's rounds, operator corrections, teleoperated demonstrations and DAgger."""
