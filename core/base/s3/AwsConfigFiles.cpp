#include "base/s3/AwsConfigFiles.h"

#include <fstream>
#include <sstream>

#include "base/util/Errors.h"

namespace streetgan::s3 {

namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

AwsConfigFiles::Sections readFile(const std::string& path, bool configStyle) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};  // a missing file holds no profile, as for the AWS CLI
    std::stringstream ss;
    ss << in.rdbuf();
    return AwsConfigFiles::parse(ss.str(), path, configStyle);
}

// The section name a header line "[...]" stands for; "" for a section to skip.
std::string sectionName(const std::string& inner, bool configStyle) {
    std::string name = trim(inner);
    if (!configStyle || name == "default") return name;
    if (name.rfind("profile", 0) == 0 && name.size() > 7 && (name[7] == ' ' || name[7] == '\t')) return trim(name.substr(8));
    return "";  // [sso-session x], [services x]: not profiles
}

}  // namespace

AwsConfigFiles::Sections AwsConfigFiles::parse(const std::string& text, const std::string& label, bool configStyle) {
    Sections sections;
    std::istringstream in(text);
    std::string line, current;
    bool skipping = true;  // keys before any section belong to none
    for (int number = 1; std::getline(in, line); ++number) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#' || t[0] == ';') continue;
        if (t.front() == '[') {
            if (t.back() != ']') throw ConfigError(label + " line " + std::to_string(number) + ": '" + t + "' opens a section without ']': fix the file");
            current = sectionName(t.substr(1, t.size() - 2), configStyle);
            skipping = current.empty();
            if (!skipping) sections[current];
            continue;
        }
        // An indented line continues a nested setting ("s3 =\n  max_concurrent_requests = 20").
        if (line[0] == ' ' || line[0] == '\t') continue;
        const size_t eq = t.find('=');
        if (eq == std::string::npos || trim(t.substr(0, eq)).empty())
            throw ConfigError(label + " line " + std::to_string(number) + ": '" + t + "' is neither [section] nor key = value: fix the file");
        if (!skipping) sections[current][trim(t.substr(0, eq))] = trim(t.substr(eq + 1));
    }
    return sections;
}

AwsConfigFiles::AwsConfigFiles(std::string credentialsPath, std::string configPath)
    : credentialsPath_(std::move(credentialsPath)), configPath_(std::move(configPath)) {
    credentials_ = readFile(credentialsPath_, false);
    config_ = readFile(configPath_, true);
}

AwsConfigFiles::Profile AwsConfigFiles::profile(const std::string& name) const {
    Profile p;
    auto take = [&](const Sections& from, const std::string& path) {
        const auto it = from.find(name);
        if (it == from.end()) return;
        p.found = true;
        const auto& keys = it->second;
        auto value = [&](const char* key) {
            const auto k = keys.find(key);
            return k == keys.end() ? std::string() : k->second;
        };
        if (p.accessKeyId.empty() && !value("aws_access_key_id").empty()) {
            p.accessKeyId = value("aws_access_key_id");
            p.secretAccessKey = value("aws_secret_access_key");
            p.sessionToken = value("aws_session_token");
            p.keysFrom = path;
        }
        if (&from == &config_ && p.region.empty()) p.region = value("region");  // the region lives in config only
    };
    take(credentials_, credentialsPath_);
    take(config_, configPath_);
    return p;
}

}  // namespace streetgan::s3
