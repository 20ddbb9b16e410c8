#pragma once
// Models by name: a study's [model] table says `type = "<name>"` and the registry's factory for
// that name builds the model from the rest of the table. Holds the built-in models from its first
// use (no static registration in the models' files, no call to remember); safe to use from several
// threads.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"

namespace contactuq::model {

// Builds a model from its [model] table; reports every error with the table's file, line and
// key (io::study_table::fail).
using model_factory = std::function<model(const io::study_table& table)>;

// Adds a factory; throws std::invalid_argument for an empty name or one already registered.
void register_model(std::string name, model_factory factory);
// The models contactuq ships ("expression", "impact", "pinslot", "receptacle_pin", "switch",
// "threaded_insertion")
// are registered on the registry's first use; this call only makes sure of it (kept for code
// written when it was needed), and does nothing more when called again.
void register_builtin_models();
// Registered names, sorted.
std::vector<std::string> registered_models();
bool is_registered(std::string_view name);

// The model named by the table's `type`, built by its factory and named after it. An unknown
// type is an io::study_error at the `type` key that lists the registered names; a registered
// name is never replaced by another model.
model make_model(const io::study_table& table);

}  // namespace contactuq::model
