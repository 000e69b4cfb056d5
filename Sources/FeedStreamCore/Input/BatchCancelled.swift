// SPDX-License-Identifier: Apache-2.0
/// Thrown by a ``ReadAheadPipeline`` run whose source was cancelled (its reading thread
/// stopped on request): the batch converter cancels its workers' pipelines this way
/// when a run is interrupted, and reports the run as interrupted rather than failed.
package struct BatchCancelled: Error, Sendable, Equatable {
    /// The cancellation.
    package init() {}
}
