// Users of SeedDB get the pure core (Seed, versions, the decision) with one import.
@_exported import SeedDBCore
