// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// `read` and `write` of the C library, named apart from the methods called `read` and
// `write` in the types that call them (a method's own name hides the global one).

#if canImport(Glibc)
let systemRead = Glibc.read
let systemWrite = Glibc.write
#elseif canImport(Darwin)
let systemRead = Darwin.read
let systemWrite = Darwin.write
#elseif canImport(Musl)
let systemRead = Musl.read
let systemWrite = Musl.write
#endif
