#include "ml/export/ExportWriter.h"

namespace streetgan {

// The writers of this build: ExportWriterList.inc is generated from STREETGAN_EXPORT_WRITERS
// (core/ml/CMakeLists.txt), one STREETGAN_EXPORT_WRITER(NAME) per writer. Naming each writer's
// function here (rather than letting its file register itself from a static initialiser) keeps it
// from being dropped: nothing else refers to its object file in the static library.
#define STREETGAN_EXPORT_WRITER(NAME) const ExportWriter& exportWriter##NAME();
#include "ExportWriterList.inc"
#undef STREETGAN_EXPORT_WRITER

namespace {

const std::vector<const ExportWriter*>& writers() {
#define STREETGAN_EXPORT_WRITER(NAME) &exportWriter##NAME(),
    static const std::vector<const ExportWriter*> list = {
#include "ExportWriterList.inc"
    };
#undef STREETGAN_EXPORT_WRITER
    return list;
}

}  // namespace

const ExportWriter* ExportWriter::find(ExportFormat::Kind kind) {
    for (const ExportWriter* w : writers())
        if (w->kind == kind) return w;
    return nullptr;
}

std::vector<ExportFormat::Kind> ExportWriter::available() {
    std::vector<ExportFormat::Kind> kinds;
    for (const ExportFormat::Spec& s : ExportFormat::all())
        if (find(s.kind)) kinds.push_back(s.kind);
    return kinds;
}

}  // namespace streetgan
