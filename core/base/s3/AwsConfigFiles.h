// AwsConfigFiles: the AWS CLI's shared files, ~/.aws/credentials and ~/.aws/config (or
// AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE), read as the CLI and SDKs read them: INI
// sections ("[name]" in credentials, "[default]" or "[profile name]" in config), "key = value"
// lines, '#'/';' comments, indented lines continuing a nested key (e.g. "s3 =" settings; skipped).
// A profile's keys come from credentials first, then config; its region from config.
// A line that is none of these is a ConfigError naming the file and line.
//
// Thread contract: read once in the constructor; const afterwards, so any thread may query.
#pragma once

#include <map>
#include <string>

namespace streetgan::s3 {

class AwsConfigFiles {
public:
    struct Profile {
        bool found = false;  ///< a section of that name is in either file
        std::string accessKeyId, secretAccessKey, sessionToken;
        std::string region;
        std::string keysFrom;  ///< the file the keys came from, for messages ("" when none)
    };
    using Sections = std::map<std::string, std::map<std::string, std::string>>;

    /// Reads both files; either may be missing (then it holds no profile).
    AwsConfigFiles(std::string credentialsPath, std::string configPath);
    Profile profile(const std::string& name) const;
    const std::string& credentialsPath() const { return credentialsPath_; }
    const std::string& configPath() const { return configPath_; }

    /// Parses INI text; `configStyle`: section "[profile x]" is profile x ("[default]" stays
    /// "default"), other typed sections ("[sso-session x]", "[services x]") are skipped. `label`
    /// names the file in errors. Throws ConfigError on a line that is not INI.
    static Sections parse(const std::string& text, const std::string& label, bool configStyle);

private:
    std::string credentialsPath_, configPath_;
    Sections credentials_, config_;
};

}  // namespace streetgan::s3
