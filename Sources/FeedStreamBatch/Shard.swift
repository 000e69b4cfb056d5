// SPDX-License-Identifier: Apache-2.0
import FeedStream
/// One of N parts of an input list, chosen by a stable hash of each input's name
/// (64-bit FNV-1a of its UTF-8 bytes, modulo N): N machines or processes given the
/// same inputs and shards 1…N convert every input exactly once, with no coordination.
///
/// The name is the path as listed (`archive/2024/feed.xml`, not an absolute path
/// unless given so), so every shard must be given the inputs spelled the same way.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based.
    public let index: Int
    /// The number of shards, N.
    public let count: Int

    /// Shard `index` of `count`; nil unless 1 ≤ index ≤ count.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// True when `input` belongs to this shard.
    public func contains(_ input: BatchInput) -> Bool {
        Int(Self.hash(input.name) % UInt64(count)) == index - 1
    }

    /// 64-bit FNV-1a of the name's bytes (a file name's own, ``PathBytes``).
    public static func hash(_ name: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in PathBytes.bytes(name) {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }
}
