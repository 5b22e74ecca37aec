"""A simulated table for the demo: a dealer and players driving the real devices and tracker.

``dealer.SimulatedDealer`` plays rounds through the shoe emulator and the pit;
``strategies`` holds the players' decisions per game; ``bets`` what they wager;
``supervisor.DemoSupervisor`` acts as (or waits for) the floor supervisor; ``camera`` shows the
layout to the real vision pipeline through the synthetic camera; ``demo`` assembles it all.
"""
