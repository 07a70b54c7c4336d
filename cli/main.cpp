// articula — command-line front end. Parses, calls the library, prints (cli/app.cpp).
#include "commands.hpp"

int main(int argc, char** argv) { return articula::cli::run_cli(argc, argv); }
