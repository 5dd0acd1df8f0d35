// The CoreServices symbols that Sources/Platform/DarwinFSEvents.swift uses, declared for
// Linux as DarwinShim.swift does the others: signatures from <CoreServices/FSEvents.h>
// (FSEvents.framework) and Apple's documentation, inert bodies, never run.
import Dispatch

/// `CFString`, a Core Foundation string; Linux has none, and `String` takes its place (the
/// adapter only converts a `String` to it, `path as CFString`).
public typealias CFString = String
/// `CFArray` of `CFString`; an array of the stand-in takes its place (`[…] as CFArray`).
public typealias CFArray = [CFString]
/// `class CFAllocator` (the adapter passes nil, the default allocator).
public final class CFAllocator {}
/// `typealias CFTimeInterval = Double`.
public typealias CFTimeInterval = Double
/// `typealias CFIndex = Int`.
public typealias CFIndex = Int

/// `typealias FSEventStreamEventId = UInt64`.
public typealias FSEventStreamEventId = UInt64
/// `typealias FSEventStreamEventFlags = UInt32`.
public typealias FSEventStreamEventFlags = UInt32
/// `typealias FSEventStreamCreateFlags = UInt32`.
public typealias FSEventStreamCreateFlags = UInt32
/// `kFSEventStreamEventIdSinceNow = 0xFFFFFFFFFFFFFFFFULL`.
public let kFSEventStreamEventIdSinceNow: UInt64 = 0xFFFF_FFFF_FFFF_FFFF
/// `typealias FSEventStreamRef = OpaquePointer` (`struct __FSEventStream *`).
public typealias FSEventStreamRef = OpaquePointer
/// `typealias ConstFSEventStreamRef = OpaquePointer`.
public typealias ConstFSEventStreamRef = OpaquePointer

/// `struct FSEventStreamContext { CFIndex version; void *info; CFAllocatorRetainCallBack
/// retain; CFAllocatorReleaseCallBack release; CFAllocatorCopyDescriptionCallBack
/// copyDescription; }`; the description callback returns `Unmanaged<CFString>?`, for which
/// a raw pointer stands (the adapter passes nil).
public struct FSEventStreamContext {
  public var version: CFIndex
  public var info: UnsafeMutableRawPointer?
  public var retain: (@convention(c) (UnsafeRawPointer?) -> UnsafeRawPointer?)?
  public var release: (@convention(c) (UnsafeRawPointer?) -> Void)?
  public var copyDescription: (@convention(c) (UnsafeRawPointer?) -> UnsafeRawPointer?)?
  public init(
    version: CFIndex, info: UnsafeMutableRawPointer?,
    retain: (@convention(c) (UnsafeRawPointer?) -> UnsafeRawPointer?)?,
    release: (@convention(c) (UnsafeRawPointer?) -> Void)?,
    copyDescription: (@convention(c) (UnsafeRawPointer?) -> UnsafeRawPointer?)?
  ) {
    self.version = version
    self.info = info
    self.retain = retain
    self.release = release
    self.copyDescription = copyDescription
  }
}

/// `typealias FSEventStreamCallback = @convention(c) (ConstFSEventStreamRef,
/// UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer,
/// UnsafePointer<FSEventStreamEventFlags>, UnsafePointer<FSEventStreamEventId>) -> Void`:
/// https://developer.apple.com/documentation/coreservices/fseventstreamcallback
public typealias FSEventStreamCallback =
  @convention(c) (
    ConstFSEventStreamRef, UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer,
    UnsafePointer<FSEventStreamEventFlags>, UnsafePointer<FSEventStreamEventId>
  ) -> Void

/// `func FSEventStreamCreate(_ allocator: CFAllocator?, _ callback: FSEventStreamCallback,
/// _ context: UnsafeMutablePointer<FSEventStreamContext>?, _ pathsToWatch: CFArray,
/// _ sinceWhen: FSEventStreamEventId, _ latency: CFTimeInterval, _ flags:
/// FSEventStreamCreateFlags) -> FSEventStreamRef?`:
/// https://developer.apple.com/documentation/coreservices/1443980-fseventstreamcreate
public func FSEventStreamCreate(
  _ allocator: CFAllocator?, _ callback: FSEventStreamCallback,
  _ context: UnsafeMutablePointer<FSEventStreamContext>?, _ pathsToWatch: CFArray,
  _ sinceWhen: FSEventStreamEventId, _ latency: CFTimeInterval,
  _ flags: FSEventStreamCreateFlags
) -> FSEventStreamRef? { nil }

/// `func FSEventStreamSetDispatchQueue(_ streamRef: FSEventStreamRef, _ q: DispatchQueue?)`.
public func FSEventStreamSetDispatchQueue(_ streamRef: FSEventStreamRef, _ q: DispatchQueue?) {}
/// `func FSEventStreamStart(_ streamRef: FSEventStreamRef) -> Bool`.
public func FSEventStreamStart(_ streamRef: FSEventStreamRef) -> Bool { false }
/// `func FSEventStreamStop(_ streamRef: FSEventStreamRef)`.
public func FSEventStreamStop(_ streamRef: FSEventStreamRef) {}
/// `func FSEventStreamInvalidate(_ streamRef: FSEventStreamRef)`.
public func FSEventStreamInvalidate(_ streamRef: FSEventStreamRef) {}
/// `func FSEventStreamRelease(_ streamRef: FSEventStreamRef)`.
public func FSEventStreamRelease(_ streamRef: FSEventStreamRef) {}
