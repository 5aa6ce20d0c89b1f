extension ContinuousClock.Instant {
    /// The time until this deadline, zero once it has passed: what a wait may still take.
    var timeLeft: Duration {
        max(self - ContinuousClock().now, .zero)
    }
}
