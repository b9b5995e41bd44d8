import CLCMS
import XCTest

/// An RGB display profile (ICC v2.1, PCS XYZ) built on a LUT: `curve` on each channel, then an `n`³ table to XYZ
/// (`table`: X, Y, Z in units of 1/32768, blue fastest), as its A2B0 — which the colour fast path, knowing only
/// matrix/TRC profiles, must leave to LittleCMS. The caller closes it (`cmsCloseProfile`).
func rgbLUTProfile(curve: OpaquePointer, grid n: Int, table: [UInt16]) throws -> cmsHPROFILE {
    let profile = try XCTUnwrap(cmsCreateProfilePlaceholder(nil))
    cmsSetProfileVersion(profile, 2.1)
    cmsSetDeviceClass(profile, cmsSigDisplayClass)
    cmsSetColorSpace(profile, cmsSigRgbData)
    cmsSetPCS(profile, cmsSigXYZData)
    var curves: [OpaquePointer?] = [curve, curve, curve]
    let pipeline = try XCTUnwrap(cmsPipelineAlloc(nil, 3, 3))
    defer { cmsPipelineFree(pipeline) }
    cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, &curves))
    cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocCLut16bit(nil, UInt32(n), 3, 3, table))
    XCTAssertNotEqual(cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeRawPointer(pipeline)), 0)
    XCTAssertNotEqual(cmsWriteTag(profile, cmsSigMediaWhitePointTag, cmsD50_XYZ()), 0)
    return profile
}
