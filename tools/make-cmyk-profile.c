// tools/make-cmyk-profile.c: writes a small CMYK output profile of this project's own making (no third-party
// profile in Fixtures/): CMYK ↔ Lab tables through an ink model unlike the decoder's profile-less one
// (R = ((1−C)(1−K))^0.7, …: lighter, so a test can tell the profile was used) and
// LittleCMS's sRGB, 6 (CMYK → Lab) and 9 (Lab → CMYK) grid points a channel; and LittleCMS's own sRGB
// profile beside it. The CMYK fixture (Fixtures/colour/kodim23-cmyk.jpg) was made with them:
//   cc tools/make-cmyk-profile.c $(pkg-config --cflags --libs lcms2) -lm -o make-cmyk-profile
//   ./make-cmyk-profile cmyk.icc srgb.icc
//   convert Fixtures/corpus/photos/kodim23.png -resize 192x128 -profile srgb.icc -intent relative \
//     -profile cmyk.icc -quality 92 Fixtures/colour/kodim23-cmyk.jpg
#include <lcms2.h>
#include <math.h>
#include <stdio.h>

static cmsHTRANSFORM to_lab, from_lab;

// CMYK (0…1, ink) → Lab through R = ((1−C)(1−K))^0.7, and likewise G, B, in sRGB.
static int forward(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    (void)cargo;
    double c[4];
    for (int i = 0; i < 4; i++) c[i] = in[i] / 65535.0;
    double rgb[3];
    for (int i = 0; i < 3; i++) rgb[i] = pow((1 - c[i]) * (1 - c[3]), 0.7);
    cmsCIELab lab;
    cmsDoTransform(to_lab, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return TRUE;
}

// Lab → CMYK: the model inverted, with grey component replacement (K = 1 − max of the ink-free values).
static int backward(const cmsUInt16Number in[], cmsUInt16Number out[], void *cargo) {
    (void)cargo;
    cmsCIELab lab;
    cmsLabEncoded2Float(&lab, in);
    double rgb[3];
    cmsDoTransform(from_lab, &lab, rgb, 1);
    double m = 0;
    for (int i = 0; i < 3; i++) {
        rgb[i] = rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : pow(rgb[i], 1 / 0.7);
        if (rgb[i] > m) m = rgb[i];
    }
    out[3] = (cmsUInt16Number)((1 - m) * 65535 + 0.5);
    for (int i = 0; i < 3; i++) out[i] = (cmsUInt16Number)((m > 0 ? 1 - rgb[i] / m : 0) * 65535 + 0.5);
    return TRUE;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: make-cmyk-profile CMYK.icc SRGB.icc\n"); return 2; }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    to_lab = cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    from_lab = cmsCreateTransform(lab, TYPE_Lab_DBL, srgb, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    cmsHPROFILE p = cmsCreateProfilePlaceholder(NULL);
    cmsSetProfileVersion(p, 2.1);
    cmsSetDeviceClass(p, cmsSigOutputClass);
    cmsSetColorSpace(p, cmsSigCmykData);
    cmsSetPCS(p, cmsSigLabData);
    cmsMLU *desc = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(desc, "en", "US", "yuvconv test CMYK");
    cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
    cmsWriteTag(p, cmsSigMediaWhitePointTag, cmsD50_XYZ());
    cmsPipeline *a2b = cmsPipelineAlloc(NULL, 4, 3), *b2a = cmsPipelineAlloc(NULL, 3, 4);
    cmsStage *fwd = cmsStageAllocCLut16bit(NULL, 6, 4, 3, NULL), *bwd = cmsStageAllocCLut16bit(NULL, 9, 3, 4, NULL);
    cmsStageSampleCLut16bit(fwd, forward, NULL, 0);
    cmsStageSampleCLut16bit(bwd, backward, NULL, 0);
    cmsPipelineInsertStage(a2b, cmsAT_END, fwd);
    cmsPipelineInsertStage(b2a, cmsAT_END, bwd);
    cmsWriteTag(p, cmsSigAToB0Tag, a2b);
    cmsWriteTag(p, cmsSigBToA0Tag, b2a);
    if (!cmsSaveProfileToFile(p, argv[1]) || !cmsSaveProfileToFile(srgb, argv[2])) {
        fprintf(stderr, "cannot write the profiles\n");
        return 1;
    }
    return 0;
}
