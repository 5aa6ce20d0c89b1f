// Users of SeedDB get the pure core (Seed, versions, the decision) with one import, and
// swift-log's `Logger`, which `Deployer`'s initialisers take.
@_exported import Logging
@_exported import SeedDBCore
